module tb;
    reg        clk = 1'b0;
    reg        rst, init, valid;
    reg  [7:0] data;
    wire [7:0] crc;
    reg  [7:0] m_crc, c;
    integer errors, samples, cyc, seed, k;

    crc8_byte dut (.clk(clk), .rst(rst), .init(init), .valid(valid), .data(data), .crc(crc));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 7;
        rst = 1'b1; init = 0; valid = 0; data = 0; m_crc = 8'bx;
        for (cyc = 0; cyc < 700; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst || init) m_crc = 8'h00;
            else if (valid) begin
                c = m_crc ^ data;
                for (k = 0; k < 8; k = k + 1)
                    c = c[7] ? ((c << 1) ^ 8'h07) : (c << 1);
                m_crc = c;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 500);
            init = (cyc == 20) || (cyc % 64 == 40);
            if (cyc >= 21 && cyc < 30) begin
                valid = 1'b1; data = 8'h31 + (cyc - 21);   // "123456789": crc must reach F4
            end else begin
                valid = ($random(seed) % 4 != 0);
                data = $random(seed);
            end
            #1;
            samples = samples + 1;
            if (cyc == 30 && m_crc !== 8'hF4)
                $display("testbench model error: check value %h", m_crc);
            if (crc !== m_crc) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=crc expected=%h got=%h", $time, m_crc, crc);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
