module tb;
    reg        clk = 1'b0;
    reg        rst, wr_en, clr_en;
    reg  [2:0] wr_idx, clr_idx;
    reg  [7:0] wr_key, search_key;
    wire [7:0] match_mask;
    wire       hit;
    wire [2:0] hit_idx;
    reg  [7:0] m_keys [0:7];
    reg  [7:0] m_valid, exp_mask;
    reg  [2:0] exp_idx;
    integer errors, samples, cyc, seed, k, probe;

    cam8 dut (.clk(clk), .rst(rst), .wr_en(wr_en), .wr_idx(wr_idx), .wr_key(wr_key), .clr_en(clr_en),
              .clr_idx(clr_idx), .search_key(search_key), .match_mask(match_mask), .hit(hit), .hit_idx(hit_idx));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 8;
        rst = 1'b1; wr_en = 0; clr_en = 0; wr_idx = 0; clr_idx = 0; wr_key = 0; search_key = 0;
        m_valid = 8'bx;
        for (cyc = 0; cyc < 900; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) m_valid = 8'h00;
            else begin
                if (clr_en) m_valid[clr_idx] = 1'b0;
                if (wr_en) begin m_valid[wr_idx] = 1'b1; m_keys[wr_idx] = wr_key; end
            end
            @(negedge clk);
            rst = (cyc < 1) || (cyc == 600);
            wr_en = ($random(seed) % 3 == 0);
            clr_en = ($random(seed) % 5 == 0);
            wr_idx = $random(seed);
            clr_idx = (cyc % 7 == 0) ? wr_idx : $random(seed);
            wr_key = $random(seed) & 8'h0F;   // a small key space makes duplicate keys common
            for (probe = 0; probe < 2; probe = probe + 1) begin
                search_key = (probe == 0) ? ($random(seed) & 8'h0F) : (search_key ^ 8'h01);
                #1;
                exp_mask = 8'h00; exp_idx = 3'd0;
                for (k = 0; k < 8; k = k + 1)
                    exp_mask[k] = m_valid[k] && (m_keys[k] === search_key);
                for (k = 7; k >= 0; k = k - 1)
                    if (exp_mask[k]) exp_idx = k;
                samples = samples + 1;
                if (match_mask !== exp_mask) begin
                    errors = errors + 1;
                    if (errors <= 5)
                        $display("MISMATCH time=%0t signal=match_mask expected=%h got=%h key=%h", $time, exp_mask, match_mask, search_key);
                end
                if (hit !== (exp_mask != 0)) begin
                    errors = errors + 1;
                    if (errors <= 5)
                        $display("MISMATCH time=%0t signal=hit expected=%h got=%h key=%h", $time, exp_mask != 0, hit, search_key);
                end
                if (hit_idx !== exp_idx) begin
                    errors = errors + 1;
                    if (errors <= 5)
                        $display("MISMATCH time=%0t signal=hit_idx expected=%h got=%h key=%h", $time, exp_idx, hit_idx, search_key);
                end
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
