module tb;
    reg        clk = 1'b0;
    reg        rst, car_ew;
    wire [2:0] ns, ew;
    reg  [2:0] m_state, exp_ns, exp_ew;
    reg        m_leave;
    integer    m_t;
    integer errors, samples, cyc, seed;

    traffic_light dut (.clk(clk), .rst(rst), .car_ew(car_ew), .ns(ns), .ew(ew));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 6;
        rst = 1'b1; car_ew = 1'b0; m_state = 3'bx; m_t = 0;
        for (cyc = 0; cyc < 600; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) begin m_state = 0; m_t = 0; end
            else begin
                case (m_state)
                    0: m_leave = (m_t >= 3) && car_ew;
                    1, 4: m_leave = (m_t == 1);
                    3: m_leave = (m_t == 3);
                    default: m_leave = 1'b1;
                endcase
                if (m_leave) begin m_state = (m_state == 5) ? 0 : m_state + 1; m_t = 0; end
                else m_t = m_t + 1;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 401);
            // long stretches with no waiting car, then busy traffic
            car_ew = (cyc % 100 < 30) ? 1'b0 : ($random(seed) % 3 != 0);
            #1;
            case (m_state)
                0: begin exp_ns = 3'b001; exp_ew = 3'b100; end
                1: begin exp_ns = 3'b010; exp_ew = 3'b100; end
                3: begin exp_ns = 3'b100; exp_ew = 3'b001; end
                4: begin exp_ns = 3'b100; exp_ew = 3'b010; end
                default: begin exp_ns = 3'b100; exp_ew = 3'b100; end
            endcase
            samples = samples + 1;
            if (ns !== exp_ns) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=ns expected=%h got=%h", $time, exp_ns, ns);
            end
            if (ew !== exp_ew) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=ew expected=%h got=%h", $time, exp_ew, ew);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
