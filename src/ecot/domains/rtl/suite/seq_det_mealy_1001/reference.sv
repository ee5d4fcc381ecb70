module seq_det_mealy_1001 (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire det
);
    localparam [1:0] IDLE = 2'd0,  // nothing useful seen
                     G1   = 2'd1,  // seen 1
                     G10  = 2'd2,  // seen 10
                     G100 = 2'd3;  // seen 100

    reg [1:0] state, next;

    always @* begin
        case (state)
            IDLE:    next = din ? G1 : IDLE;
            G1:      next = din ? G1 : G10;
            G10:     next = din ? G1 : G100;
            default: next = din ? G1 : IDLE;
        endcase
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= IDLE;
        else
            state <= next;
    end

    assign det = (state == G100) && din;
endmodule
